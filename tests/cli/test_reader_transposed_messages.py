"""Where a non-numeric cell is, said the same way whichever option put the features in rows."""

import pytest

from widefs.cli.io._data import load_cli_data
from widefs.exceptions import DataError

_GENES = "feature\ts1\ts2\ts3\ts4\ng1\t1\t2\t3\t4\ng2\t5\tabc\t7\t8\ng3\t1\t1\t2\t2\n"
_SHEET = "sample\tclass\ns1\ta\ns2\tb\ns3\ta\ns4\tb\n"


def test_transpose_names_the_feature_row_and_the_sample(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text(
        _GENES.replace("feature\ts1\ts2\ts3\ts4\n", "feature\ts1\ts2\ts3\ts4\nclass\ta\tb\ta\tb\n")
    )
    with pytest.raises(DataError) as err:
        load_cli_data(str(path), target="class", transpose=True)
    assert "e.g. line 4: 'abc' in row 'g2', column 's2' is not a number." in str(err.value)


def test_labels_file_names_the_feature_row_and_the_sample(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text(_GENES)
    sheet = tmp_path / "s.tsv"
    sheet.write_text(_SHEET)
    with pytest.raises(DataError) as err:
        load_cli_data(str(path), labels=str(sheet), target="class")
    message = str(err.value)
    assert message.startswith("non-numeric feature rows: g2; ")
    assert "e.g. line 3: 'abc' in row 'g2', column 's2' is not a number." in message
